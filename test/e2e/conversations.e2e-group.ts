// Every spec of test/e2e/conversations/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './conversations/list.e2e-spec';
import './conversations/workflow.e2e-spec';
