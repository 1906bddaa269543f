// Every spec of test/e2e/foundation/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './foundation/admin-channel.e2e-spec';
import './foundation/auth.e2e-spec';
import './foundation/cache-invalidation.e2e-spec';
import './foundation/cli.e2e-spec';
import './foundation/embedded.e2e-spec';
import './foundation/errors.e2e-spec';
import './foundation/first-start.e2e-spec';
import './foundation/jobs.e2e-spec';
import './foundation/migrations.e2e-spec';
import './foundation/permissions.e2e-spec';
import './foundation/scale-out.e2e-spec';
import './foundation/tokens.e2e-spec';
import './foundation/workspace.e2e-spec';
