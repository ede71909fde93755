// A loopback DNS server over UDP (RFC 1035): a query for a name it knows is answered with its A
// records (and an empty answer for AAAA, as a server with no IPv6 address for it does); an unknown name
// is NXDOMAIN; a name marked silent is never answered, as a name server that drops queries behaves.
import { createSocket as createUdpSocket } from 'node:dgram';

export interface FakeDns {
  /** `127.0.0.1:<port>`, for a resolver's servers. */
  server: string;
  /** Names answered with these IPv4 addresses. */
  answer(name: string, addresses: string[]): void;
  /** Names never answered. */
  silence(name: string): void;
  /** Queries received, by name. */
  queries: string[];
  close(): Promise<void>;
}

const TYPE_A = 1;

/** The question's name and type, and where the question ends. */
function question(packet: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (packet[at]! > 0) {
    const length = packet[at]!;
    labels.push(packet.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(at + 1), end: at + 5 };
}

export async function startFakeDns(): Promise<FakeDns> {
  const known = new Map<string, string[]>();
  const silent = new Set<string>();
  const queries: string[] = [];
  const socket = createUdpSocket('udp4');
  socket.on('message', (packet, peer) => {
    const { name, type, end } = question(packet);
    queries.push(name);
    if (silent.has(name)) return;
    const addresses = known.get(name);
    const answers = addresses && type === TYPE_A ? addresses : [];
    const header = Buffer.alloc(12);
    packet.copy(header, 0, 0, 2); // the query's id
    // QR, the opcode and RD copied, RA; RCODE 3 (NXDOMAIN) for an unknown name.
    header.writeUInt16BE(0x8180 | (packet.readUInt16BE(2) & 0x0100) | (addresses ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(TYPE_A, 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(60, 6); // TTL
      record.writeUInt16BE(4, 10);
      Buffer.from(address.split('.').map(Number)).copy(record, 12);
      return record;
    });
    socket.send(Buffer.concat([header, packet.subarray(12, end), ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    answer: (name, addresses) => void known.set(name.toLowerCase(), addresses),
    silence: (name) => void silent.add(name.toLowerCase()),
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
