import type { VideoAnalysis, VideoAnalysisSummary } from '@persona-api/types';
import { iso, unix } from '../../lib/wire.js';
import type { videoAnalyses } from './table.js';

export type VideoAnalysisRow = typeof videoAnalyses.$inferSelect;

export function toVideoAnalysisSummary(row: VideoAnalysisRow): VideoAnalysisSummary {
  return {
    id: row.id,
    object: 'video_analysis',
    status: row.status as VideoAnalysisSummary['status'],
    progress: row.progress,
    video_url: row.videoUrl,
    file_id: row.fileId,
    title: row.title,
    brand: row.brand,
    product: row.product,
    primary_intent: row.primaryIntent,
    secondary_intent: row.secondaryIntent,
    tertiary_intent: row.tertiaryIntent,
    goal: row.goal,
    chunk_duration: row.chunkDuration,
    frames_per_chunk: row.framesPerChunk,
    duration_seconds: row.durationSeconds,
    workspace_id: row.workspaceId,
    credits_used: row.creditsUsed,
    error: row.error,
    created_at: unix(row.createdAt),
    updated_at: iso(row.updatedAt),
    completed_at: row.completedAt ? iso(row.completedAt) : null,
  };
}

/**
 * `frameLink`: given when the analysis' frames are stored; each chunk's `frame_url` is set (a fresh signed
 * link, or null), so a value stored with the result never reaches the wire.
 */
export function toVideoAnalysis(row: VideoAnalysisRow, frameLink: ((chunkIndex: number) => string) | null = null): VideoAnalysis {
  const result = row.status === 'completed' ? row.result : null;
  if (!result) return { ...toVideoAnalysisSummary(row), result: null };
  return {
    ...toVideoAnalysisSummary(row),
    result: { ...result, chunks: result.chunks.map((chunk) => ({ ...chunk, frame_url: frameLink ? frameLink(chunk.index) : null })) },
  };
}
