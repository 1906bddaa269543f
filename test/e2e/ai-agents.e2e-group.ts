// Every spec of test/e2e/ai-agents/ as one Jest test file (test/utils/spec-group.ts); the guard in
// test/utils/spec-groups.int-spec.ts fails when a spec of the directory is missing here.
import './ai-agents/ai-agents.e2e-spec';
import './ai-agents/builtin-questions.e2e-spec';
import './ai-agents/llm.e2e-spec';
import './ai-agents/website-effects.e2e-spec';
