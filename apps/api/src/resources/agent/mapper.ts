import type { AgentMessage, AgentThread } from '@persona-api/types';
import { iso } from '../../lib/wire.js';
import type { agentMessages, agentThreads } from './table.js';

export type AgentThreadRow = typeof agentThreads.$inferSelect;
export type AgentMessageRow = typeof agentMessages.$inferSelect;

export function toAgentThread(row: AgentThreadRow): AgentThread {
  return {
    id: row.id,
    object: 'agent_thread',
    title: row.title,
    workspace_id: row.workspaceId,
    project_id: row.projectId,
    persona_id: row.personaId,
    credits_used: row.creditsUsed,
    message_count: row.messageCount,
    last_message_at: row.lastMessageAt ? iso(row.lastMessageAt) : null,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function toAgentMessage(row: AgentMessageRow): AgentMessage {
  const answered = row.role === 'assistant' && row.status !== 'in_progress';
  return {
    id: row.id,
    object: 'agent_thread.message',
    thread_id: row.threadId,
    role: row.role,
    content: row.content,
    status: row.status,
    sources: row.sources,
    usage: answered
      ? {
          input_tokens: row.inputTokens,
          output_tokens: row.outputTokens,
          total_tokens: row.inputTokens + row.outputTokens,
          credits_used: row.creditsUsed,
        }
      : null,
    created_at: iso(row.createdAt),
  };
}
