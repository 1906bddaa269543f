// Every spec of test/e2e/onboarding/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './onboarding/accounts.e2e-spec';
import './onboarding/demo-seed.e2e-spec';
import './onboarding/ecosystem.e2e-spec';
import './onboarding/openapi.e2e-spec';
import './onboarding/quickstart.e2e-spec';
