// Every spec of test/e2e/sla/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './sla/conversations.e2e-spec';
import './sla/policies.e2e-spec';
