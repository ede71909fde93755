// Loaded before every test file and every process the tests start: any connection to an address
// other than loopback fails loudly, so no test can reach the internet by accident (the real adapters
// are pointed at fakes). Plain JavaScript, so the started servers and CLIs load it without tsx
// (~1 s of CPU each, decision 305).
import net from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;

const originalConnect = net.Socket.prototype.connect;
/** @this {net.Socket} @param {...unknown} args */
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = args[0];
  /** @type {string | undefined} */
  let host;
  /** @type {string | undefined} */
  let path;
  if (first && typeof first === 'object' && !Array.isArray(first)) {
    const options = /** @type {net.TcpNetConnectOpts & net.IpcNetConnectOpts} */ (first);
    host = options.host ?? undefined;
    path = options.path;
  } else if (typeof first === 'number') {
    host = typeof args[1] === 'string' ? args[1] : 'localhost';
  } else if (typeof first === 'string') {
    path = first;
  } else if (Array.isArray(first)) {
    const options = first[0];
    host = options?.host;
    path = options?.path;
  }
  if (!path && host !== undefined && !LOOPBACK.test(host)) {
    throw new Error(`test network guard: refusing to connect to ${host}; tests talk to loopback fakes only`);
  }
  return originalConnect.apply(this, /** @type {any} */ (args));
};
