// Loaded before every test file: any connection to an address other than loopback fails loudly,
// so no test can reach the internet by accident (the real adapters are pointed at fakes).
import net from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;

const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  let host: string | undefined;
  let path: string | undefined;
  if (first && typeof first === 'object' && !Array.isArray(first)) {
    host = (first as net.TcpNetConnectOpts).host ?? undefined;
    path = (first as net.IpcNetConnectOpts).path;
  } else if (typeof first === 'number') {
    host = typeof args[1] === 'string' ? args[1] : 'localhost';
  } else if (typeof first === 'string') {
    path = first;
  } else if (Array.isArray(first)) {
    const options = first[0] as net.TcpNetConnectOpts & net.IpcNetConnectOpts;
    host = options?.host;
    path = options?.path;
  }
  if (!path && host !== undefined && !LOOPBACK.test(host)) {
    throw new Error(`test network guard: refusing to connect to ${host}; tests talk to loopback fakes only`);
  }
  return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
