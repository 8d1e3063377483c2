import { expect, test } from './fixtures/test';
import * as fs from 'fs';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// Regenerate and Edit keep the earlier answer and question as versions of the
// turn ("‹ 2 / 3 ›"); the version shown is what the next turn is asked with,
// each version keeps the turns that followed it, and every version survives a
// reload and an export/import (docs/decisions.md, "Versions of a turn").

const FIRST = 'Which number? mock:normal';
const FIRST_ANSWER = 'Here is the answer: 42.';
const EDITED = 'Which code? mock:tag-in-code';
const EDITED_ANSWER = 'That is all.';
const FOLLOW_UP = 'And after that? mock:normal';

/** Edits the first question to `text` and waits for the answer: two versions, the new one shown. */
async function editFirstQuestion(chat: ChatPage, text: string) {
  const question = chat.page.getByTestId('user-message').first();
  await question.getByTestId('edit').click();
  await chat.page.getByTestId('edit-input').fill(text);
  await chat.page.getByTestId('edit-send').click();
  await expect(question.getByTestId('version-count')).toHaveText('2 / 2');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.page.getByTestId('user-text')).toHaveText([text]);
}

test('Edit and Regenerate keep every version of a turn; the shown one is the next turn\'s context; they survive a reload and an export/import', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const question = page.getByTestId('user-message').first();
  const previous = question.getByRole('button', { name: 'Previous version', exact: true });
  const next = question.getByRole('button', { name: 'Next version', exact: true });
  const count = question.getByTestId('version-count');
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) sent.push(r.postData() ?? '');
  });

  await chat.send(FIRST);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText(FIRST_ANSWER);
  // One version so far: nothing to switch.
  await expect(previous).toHaveCount(0);

  // Edit: the new question is asked; the first one and its answer stay, one step back.
  await editFirstQuestion(chat, EDITED);
  await expect(chat.assistant().getByTestId('answer')).toContainText(EDITED_ANSWER);
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(previous).toBeEnabled();
  await expect(next).toBeDisabled();

  // Regenerate: a third version (the mock answers alike; the count tells them apart).
  await chat.assistant().getByTestId('regenerate').click();
  await expect(count).toHaveText('3 / 3');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);

  // Back to the first version: its question and answer, as they were.
  await previous.click();
  await expect(count).toHaveText('2 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([EDITED]);
  await previous.click();
  await expect(count).toHaveText('1 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([FIRST]);
  await expect(chat.assistant().getByTestId('answer')).toHaveText(FIRST_ANSWER);
  await expect(previous).toBeDisabled();
  await expect(next).toBeEnabled();

  // The next turn is asked with the version shown, and no other.
  const before = sent.length;
  await chat.send(FOLLOW_UP);
  await expect.poll(() => sent.length).toBe(before + 1);
  const context = JSON.parse(sent[before]).request.messages.map((m: { content: string }) => m.content);
  expect(context).toEqual([FIRST, 'Here is the answer: **42**.', FOLLOW_UP]);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('assistant-message')).toHaveCount(2);

  // The follow-up belongs to the first version: another version shows without it.
  await next.click();
  await expect(count).toHaveText('2 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([EDITED]);
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);

  // A reload shows the version that was shown, and keeps the others.
  await page.reload();
  await chat.hydrated();
  await expect(count).toHaveText('2 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([EDITED]);
  await previous.click();
  await expect(count).toHaveText('1 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([FIRST, FOLLOW_UP]);
  await expect(page.getByTestId('assistant-message')).toHaveCount(2);

  // The Markdown export writes the version shown and says the others exist.
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  expect(markdown).toContain(FIRST);
  expect(markdown).toContain(FOLLOW_UP);
  expect(markdown).toContain('*Version 1 of 3 of this turn, as shown in Pensive; the 2 other versions are in the JSON export.*');
  expect(markdown).not.toContain(EDITED);

  // The JSON export keeps them all.
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = fs.readFileSync((await json.path())!, 'utf8');
  const parsed = JSON.parse(exported);
  const first = parsed.conversation.messages[0];
  expect(first.content).toBe(FIRST);
  expect(first.versions.shown).toBe(0);
  expect(first.versions.others.map((v: { content: string }) => v.content)).toEqual([EDITED, EDITED]);
  const file = testInfo.outputPath('versions.json');
  fs.writeFileSync(file, exported);

  // Deleted, then imported: the same conversation, every version in it.
  await page.getByTestId('conversation-item').first().getByTestId('delete').click();
  await expect(page.getByTestId('conversation-item')).toHaveCount(0);
  await expect(page.getByTestId('user-message')).toHaveCount(0);
  await page.getByTestId('import-json').setInputFiles(file);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(count).toHaveText('1 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([FIRST, FOLLOW_UP]);
  const [again] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  expect(JSON.parse(fs.readFileSync((await again.path())!, 'utf8'))).toEqual(parsed);
  await next.click();
  await expect(count).toHaveText('2 / 3');
  await next.click();
  await expect(count).toHaveText('3 / 3');
  await expect(page.getByTestId('user-text')).toHaveText([EDITED]);
  await expect(chat.assistant().getByTestId('answer')).toContainText(EDITED_ANSWER);
  await chat.expectNoConsoleErrors();
});

test('search finds words in a version that Edit replaced, lists every match, and opens the version they are in', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const question = page.getByTestId('user-message').first();
  const count = question.getByTestId('version-count');
  await chat.send(FIRST);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  // The first question and its answer are hidden now.
  await editFirstQuestion(chat, EDITED);

  const box = page.getByTestId('search-conversations');
  const results = page.getByTestId('search-result');
  // "number" is in the title and in the hidden question: both are listed
  // (a search used to list one match per conversation).
  await box.fill('number');
  await expect(results.filter({ hasText: 'in the title' })).toHaveCount(1);
  await expect(results.filter({ hasText: 'in a question, in another version' })).toHaveCount(1);

  // Words only the hidden answer has: found, and opened in their version.
  await box.fill('Here is the answer');
  await expect(results).toHaveCount(1);
  await expect(results).toContainText('in an answer, in another version');
  await results.click();
  await expect(count).toHaveText('1 / 2');
  await expect(page.getByTestId('user-text')).toHaveText([FIRST]);
  await expect(chat.assistant().getByTestId('answer')).toHaveText(FIRST_ANSWER);
});
