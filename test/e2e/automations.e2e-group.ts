// Every spec of test/e2e/automations/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './automations/automations-api.e2e-spec';
import './automations/flows.e2e-spec';
import './automations/pipeline-config-caches.e2e-spec';
import './automations/rules.e2e-spec';
