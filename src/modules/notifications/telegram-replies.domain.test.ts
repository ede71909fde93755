import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReplyBudget, replyOf } from './telegram-replies.domain.ts';

describe("the bot's answers to messages that link nothing", () => {
  it('answers a refused link anywhere, a plain message only in a private chat, a link made never', () => {
    assert.equal(replyOf('expired', 'private'), replyOf('unknown code', 'private'));
    assert.ok(replyOf('not a private chat', 'group'));
    assert.ok(replyOf('not a link', 'private'));
    assert.equal(replyOf('not a link', 'group'), undefined);
    assert.equal(replyOf('linked', 'private'), undefined);
  });

  it('bounds them per chat, per poll and per minute', () => {
    const budget = createReplyBudget({ perChatMs: 60_000, perPoll: 2, perMinute: 3 });
    assert.equal(budget.take('1', 1, 0), true);
    assert.equal(budget.take('1', 2, 1_000), false, 'the same chat within its minute');
    assert.equal(budget.take('2', 2, 1_000), true);
    assert.equal(budget.take('3', 2, 1_000), true);
    assert.equal(budget.take('4', 2, 1_000), false, 'past the poll bound');
    assert.equal(budget.take('4', 3, 2_000), false, 'past the minute bound');
    assert.equal(budget.take('4', 4, 60_000), true, 'a new minute');
    assert.equal(budget.take('1', 4, 60_000), true, "the first chat's minute is over");
  });
});
