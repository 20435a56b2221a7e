import net from 'node:net';

/**
 * A TCP proxy in front of a dependency (PostgreSQL, Redis, S3) that a test can cut: `cut()` closes every
 * open connection at once and resets new ones until `restore()`, which is what a failover, a restart or a
 * network blip looks like to the client. Loopback only.
 */
export interface FaultProxy {
  /** The port clients connect to (on 127.0.0.1). */
  port: number;
  cut(): void;
  restore(): void;
  /** Connections accepted since the proxy started (through it or reset while cut). */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const open = new Set<net.Socket>();
  let down = false;
  let connections = 0;
  const server = net.createServer((client) => {
    connections++;
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get connections() {
      return connections;
    },
    cut() {
      down = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        down = true;
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The same URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: FaultProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
