import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvCell, usersToCsv } from './users-csv.ts';
import type { User } from './users.schemas.ts';

describe('users CSV', () => {
  it('neutralises cells that a spreadsheet would run as formulas', () => {
    assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
    assert.equal(csvCell('+1+2'), "'+1+2");
    assert.equal(csvCell('-2+3'), "'-2+3");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\tcmd'), "'\tcmd");
    assert.equal(csvCell('\rcmd'), `"'\rcmd"`);
  });

  it('quotes commas, quotes and line breaks, and leaves plain text and numbers alone', () => {
    assert.equal(csvCell('Smith, Jr.'), '"Smith, Jr."');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.equal(csvCell('ada@example.com'), 'ada@example.com');
    assert.equal(csvCell(-12.5), '-12.5');
    assert.equal(csvCell(true), 'true');
    assert.equal(csvCell(null), '');
  });

  it('writes a header row and one CRLF-terminated row per user', () => {
    const user: User = {
      id: '00000000-0000-4000-8000-000000000001',
      email: 'ada@example.com',
      firstName: '=cmd',
      lastName: 'Lovelace',
      role: 'user',
      subscriptionTier: 'pro',
      status: 'active',
      createdAt: '2025-01-02T03:04:05.000Z',
      lastLogin: null,
      emailVerified: true,
      twoFactorEnabled: false,
      totalTrades: 3,
      accountBalance: 10.5,
      avatar: null,
    };
    const csv = usersToCsv([user]);
    assert.equal(
      csv,
      'id,email,firstName,lastName,role,subscriptionTier,status,' +
        'createdAt,lastLogin,emailVerified,twoFactorEnabled,totalTrades,accountBalance,avatar\r\n' +
        "00000000-0000-4000-8000-000000000001,ada@example.com,'=cmd,Lovelace,user,pro,active," +
        '2025-01-02T03:04:05.000Z,,true,false,3,10.5,\r\n',
    );
  });
});
