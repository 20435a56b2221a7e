// `@persona-api/engine/testing`: helpers for the tests of this package and of the server.
export {
  startFakeUpstream,
  type FakeReply,
  type FakeReplyScript,
  type FakeToolCall,
  type FakeUpstream,
  type FakeUpstreamOptions,
  type RecordedRequest,
} from './fake-upstream.js';
