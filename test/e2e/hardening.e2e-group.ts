// Every spec of test/e2e/hardening/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './hardening/api-fuzz.e2e-spec';
import './hardening/auth-surface.e2e-spec';
import './hardening/delivery-backoff.e2e-spec';
import './hardening/input-limits.e2e-spec';
import './hardening/outbound-ssrf.e2e-spec';
import './hardening/platform-outcomes.e2e-spec';
import './hardening/timers.e2e-spec';
