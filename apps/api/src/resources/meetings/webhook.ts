import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { BOT_JOBS, firstDelivery } from './bot-sync.js';
import { WebhookRefused } from './recall.js';
import { meetingBotOf } from './settings.js';
import { meetings } from './table.js';
import { eq } from 'drizzle-orm';

/** Where the provider posts status webhooks (outside /api/v1 and the contract: no API key, the signature authorises). */
export const BOT_WEBHOOK_PATH = '/webhooks/recall';

/**
 * The status-webhook receiver: the raw body's signature is verified (Standard Webhooks, as Recall sends
 * them), a message id seen before is acknowledged and ignored, and a genuine status change enqueues a sync
 * of that bot (which reads the bot from the provider: the webhook body itself is never trusted for state).
 * Forged, unsigned or stale messages get a 401 and change nothing. Without a provider the route is a 404.
 */
export function registerMeetingBotWebhook(app: FastifyInstance, services: Services): void {
  app.register(async (scope) => {
    // The signature covers the exact bytes: this route takes the body as text.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_request, body, done) => done(null, body));
    scope.post(BOT_WEBHOOK_PATH, async (request, reply) => {
      const provider = meetingBotOf(services);
      if (provider.simulated)
        return reply
          .code(404)
          .send({ error: { message: 'No meeting-bot provider is configured on this server.', type: 'not_found', code: 'resource_not_found', param: null } });
      const now = services.clock.now();
      let verified: { messageId: string; botId: string | null };
      try {
        verified = provider.verifyWebhook(request.headers, typeof request.body === 'string' ? request.body : '', now);
      } catch (error) {
        if (!(error instanceof WebhookRefused)) throw error;
        request.log.warn({ reason: error.message }, 'meeting-bot webhook refused');
        return reply.code(401).send({ error: { message: error.message, type: 'authentication_error', code: 'invalid_signature', param: null } });
      }
      if (!(await firstDelivery(services, verified.messageId, now))) return reply.code(200).send({ received: true, duplicate: true });
      if (verified.botId) {
        const [meeting] = await services.db.select({ id: meetings.id }).from(meetings).where(eq(meetings.providerBotId, verified.botId)).limit(1);
        // A bot of another application on the same provider account is not ours: acknowledged, ignored.
        if (meeting)
          await services.jobs.enqueue(
            services.db,
            BOT_JOBS.sync,
            { id: meeting.id, poll: false },
            { singletonKey: `${meeting.id}:hook:${verified.messageId}` },
          );
      }
      return reply.code(200).send({ received: true });
    });
  });
}
