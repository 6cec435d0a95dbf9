// What each Claude model refuses with a 400, as Anthropic's model pages state
// (platform.claude.com/docs/en/models/<model>/whats-new-*): the simulated Claude answers as the real one.

export interface ClaudeRules {
  /** thinking.type values the model answers with a 400. */
  refusedThinking: ReadonlySet<string>;
  /** temperature, top_p and top_k are refused. */
  noSampling: boolean;
  /** tool_choice "any" or "tool" is refused. */
  noForcedTools: boolean;
  /** A final assistant turn (a prefill) is refused. */
  noPrefill: boolean;
  /** `system` messages are taken after a user turn (introduced with Opus 4.8). */
  midConversationSystem: boolean;
}

const rules = (refusedThinking: string[], flags: Partial<Omit<ClaudeRules, "refusedThinking">> = {}): ClaudeRules => ({
  refusedThinking: new Set(refusedThinking),
  noSampling: false,
  noForcedTools: false,
  noPrefill: false,
  midConversationSystem: true,
  ...flags,
});

// Most specific first: the first pattern that matches a model id gives its rules.
const table: [RegExp, ClaudeRules][] = [
  // Thinking can't be disabled and forced tool use is an error (Opus 5.5; the same on Fable 5.1 and later).
  [
    /^claude-(opus-5-5|fable-5-[1-9])/,
    rules(["enabled", "disabled", "between_tools"], { noSampling: true, noForcedTools: true }),
  ],
  // Fable 5 and Mythos: adaptive thinking always on.
  [/^claude-(fable|mythos)/, rules(["enabled", "disabled", "between_tools"], { noSampling: true })],
  // "disabled" is replaced by "between_tools"; forced tool use is an error.
  [/^claude-sonnet-5-5/, rules(["enabled", "disabled"], { noSampling: true, noForcedTools: true })],
  // Manual thinking, non-default sampling and (Haiku) prefill are errors; "disabled" is accepted.
  [/^claude-haiku-5/, rules(["enabled", "between_tools"], { noSampling: true, noPrefill: true })],
  [/^claude-(opus|sonnet)-5/, rules(["enabled", "between_tools"], { noSampling: true })],
  // Opus 4.7 and 4.8 think only adaptively; Opus 4.7 takes no sampling parameters.
  [/^claude-opus-4-7/, rules(["enabled", "disabled", "between_tools"], { noSampling: true })],
  [/^claude-opus-4-8/, rules(["enabled", "disabled", "between_tools"])],
];

const earlier = rules(["between_tools"], { midConversationSystem: false });

/** The rules for a model id; earlier models refuse only what they do not know. */
export function claudeRules(model: string): ClaudeRules {
  return table.find(([pattern]) => pattern.test(model))?.[1] ?? earlier;
}
