// Prompts of the focus group for an upstream model: one persona answering in its own voice, then a moderator.
import type { FeatureMessage } from '../define.js';
import type { FocusGroupAnswerInput, FocusGroupSummaryInput } from './index.js';

export function answerPrompt({ question, instructions, persona }: FocusGroupAnswerInput): FeatureMessage[] {
  return [
    {
      role: 'system',
      content: [
        persona.system_prompt,
        'You are taking part in a moderated focus group. Answer the moderator’s question in your own voice, from your own situation, without knowing what the other participants said.',
        instructions ?? '',
        'Reply with JSON only: `answer` (your words), `sentiment` towards the subject of the question (positive, neutral, negative or mixed), `key_points` (the main points of your answer, most important first) and `confidence` (0 to 1: how surely the answer reflects you).',
      ]
        .filter((part) => part.trim().length > 0)
        .join('\n\n'),
    },
    { role: 'user', content: question },
  ];
}

export function summaryPrompt({ question, instructions, answers }: FocusGroupSummaryInput): FeatureMessage[] {
  const transcript = answers.map((entry, index) => `[${index + 1}] ${entry.persona_name} (${entry.sentiment}): ${entry.answer}`).join('\n\n');
  return [
    {
      role: 'system',
      content: [
        'You are the moderator of a focus group. Summarise the participants’ answers to the question: `consensus` (what most agree on, one paragraph), `disagreements` (each naming who thinks what), `key_themes` (recurring themes, most frequent first) and `recommendations` (next steps drawn from the answers only). Do not invent participants or opinions. Reply with JSON only.',
        instructions ? `The group’s instructions: ${instructions}` : '',
      ]
        .filter((part) => part.length > 0)
        .join('\n\n'),
    },
    { role: 'user', content: `Question: ${question}\n\nAnswers:\n\n${transcript}` },
  ];
}
