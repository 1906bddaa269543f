// Every spec of test/e2e/developer/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './developer/crash.e2e-spec';
import './developer/webhooks.e2e-spec';
