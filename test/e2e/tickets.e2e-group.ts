// Every spec of test/e2e/tickets/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './tickets/automatic-ticket.e2e-spec';
import './tickets/tickets.e2e-spec';
