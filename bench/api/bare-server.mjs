// The baseline: a bare Fastify route that answers the same JSON body as the API's list call, with no
// auth, rate limit, validation, database or schema serialisation. Started by run.mjs as a child.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [bodyFile, port] = process.argv.slice(2);
const body = readFileSync(bodyFile, 'utf8');
const app = Fastify({ logger: false });
app.get('/api/v1/workspaces', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('listening\n');
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
