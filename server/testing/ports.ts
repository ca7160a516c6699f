// A port for a server a test or a benchmark starts on loopback.
import { createServer, type AddressInfo } from 'node:net';

/** A port free on the loopback address now (the system's next ephemeral one). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
