// Every spec of test/e2e/inbox/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './inbox/ack-pool.e2e-spec';
import './inbox/async-commit.e2e-spec';
import './inbox/custom-channel.e2e-spec';
import './inbox/group-processing.e2e-spec';
import './inbox/line.e2e-spec';
import './inbox/meta.e2e-spec';
import './inbox/pipeline-yield.e2e-spec';
import './inbox/pipeline.e2e-spec';
import './inbox/prepared-statements.e2e-spec';
import './inbox/routing.e2e-spec';
import './inbox/telegram.e2e-spec';
