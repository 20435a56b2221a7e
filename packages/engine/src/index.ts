// @persona-api/engine: the model engines behind /responses and /chat/completions (see README.md).
export type * from './types.js';
export { EngineError, isEngineError, type EngineErrorCode, type EngineErrorOptions } from './errors.js';
export { countTokens, countPromptTokens, countToolCallTokens, creditsForTokens, truncateToTokens } from './tokens.js';
export { parseEngineConfig, EngineConfigError, type EngineConfig, type UpstreamConfig } from './config.js';
export { createEngine } from './factory.js';
export {
  defineFeature,
  type Feature,
  type FeatureDefinition,
  type FeatureMessage,
  type FeatureImage,
  type FeatureResult,
  type FeatureSchema,
  type OfflineContext,
  type RunOptions,
} from './features/define.js';
export { personaProfile } from './features/persona-profile/index.js';
export { personaSuggestions } from './features/persona-suggestions/index.js';
export { responseAnalysis, type ResponseAnalysisInput } from './features/response-analysis/index.js';
export {
  videoAnalysis,
  brandMentions,
  VIDEO_ANALYSIS_MODEL_CHUNK_CAP,
  VIDEO_ANALYSIS_MODEL_FRAME_CAP,
  type VideoFrameImage,
  type VideoAnalysisInput,
  type VideoChunkMeasurements,
} from './features/video-analysis/index.js';
export {
  videoAnalysisChat,
  chunkCitation,
  groundCitations,
  type VideoChatInput,
  type VideoChatOutput,
} from './features/video-analysis/chat.js';
export {
  focusGroupAnswer,
  focusGroupSummary,
  sentimentBreakdown,
  FOCUS_GROUP_SENTIMENTS,
  type FocusGroupAnswerInput,
  type FocusGroupAnswerOutput,
  type FocusGroupSentiment,
  type FocusGroupSummaryInput,
  type FocusGroupSummaryOutput,
} from './features/focus-group/index.js';
export {
  newsClassification,
  NEWS_TOPICS,
  type NewsClassificationInput,
  type NewsClassificationOutput,
  type NewsTopicName,
} from './features/news-classification/index.js';
export { newsAnalysis, type NewsAnalysisInput, type NewsAnalysisOutput } from './features/news-analysis/index.js';
export {
  newsDigest,
  storyRelevance,
  type DigestStory,
  type NewsDigestInput,
  type NewsDigestOutput,
  type StoryRelevance,
} from './features/news-digest/index.js';
export {
  coerceValue,
  dateIn,
  locateQuote,
  meetingSchemaExtraction,
  numbersIn,
  overallScore,
  settleExtraction,
  UNVERIFIED_QUOTE_PENALTY,
  type FieldDraft,
  type MeetingSchemaExtractionInput,
  type SettledExtraction,
} from './features/meeting-schema/index.js';
export {
  MEETING_TOPICS,
  meetingAnalysis,
  sentimentOf,
  settleAnalysis,
  type MeetingAnalysisDraft,
  type MeetingAnalysisInput,
  type MeetingAnalysisResult,
} from './features/meeting-analysis/index.js';
export { brandVoice, type BrandVoiceInput, type BrandVoiceSourceText, type LearnedBrandVoice } from './features/brand-voice/index.js';
export { defineTextFeature, type TextFeature } from './features/define-text.js';
export { contentGeneration, contentSystemPrompt, type ContentGenerationInput, type ContentVoice } from './features/content-generation/index.js';
export { contractSchema } from './schema/bundle.js';
export { createOfflineEngine, OFFLINE_DESCRIPTION, type OfflineEngineOptions } from './offline/engine.js';
export { createOpenAICompatibleEngine, type OpenAICompatibleEngineOptions } from './openai/engine.js';
export {
  basePersonas,
  getBasePersona,
  basePersonaSystemPrompt,
  enginePersonaFromBase,
  enginePersonaFromCustom,
  composeSystemPrompt,
  CATALOG_CREATED_AT,
} from './catalog/index.js';
export { generationApps, getGenerationApp, generationAppTemplate, renderTemplate, type GenerationAppEntry } from './catalog/generation-apps.js';
export { DETAILS_FIELDS, fieldApplies, completeDetails, B2B_FIELDS, B2C_FIELDS, INTERMEDIATE_FIELDS, ADVANCED_FIELDS } from './catalog/pipeline.js';
export { ARTIFACT_TYPES, ARTIFACT_CLOSE_TAG, escapeAttribute, formatArtifact, parseArtifact, type Artifact, type ArtifactType } from './artifact.js';
export { compileSchema, parseStructuredOutput, validateAgainst, describeErrors } from './schema/validate.js';
export {
  threadTitle,
  offlineThreadTitle,
  researchKeywords,
  composeResearchAnswer,
  THREAD_TITLE_MAX,
  RESEARCH_KEYWORDS,
  RESEARCH_QUOTED_SOURCES,
  type ResearchSource,
  type ThreadTitleInput,
} from './features/research/index.js';
// The word helpers the server's research tools rank passages with, so they match the offline composer's.
export { contentWords, sentences, stem, stemSet } from './text/index.js';
