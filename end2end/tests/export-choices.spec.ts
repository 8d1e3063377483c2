import { expect, test } from './fixtures/test';
import * as fs from 'fs';
import type { Download, Page } from '@playwright/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { putRecords, storedRecords } from './fixtures/stored';

// The export's choices in the Options menu: Markdown or JSON, with reasoning
// or without ("Include reasoning", on by default), this conversation or all
// of them (one file). An all-conversations JSON imports back beside what is
// stored; a bad one changes nothing (docs/decisions.md, "Export choices").

const REASONING = 'Let me think about this carefully.';
const ANSWER = 'Here is the answer: **42**.';

type Block = { kind: string; text?: string };
type Continuity = { after_blocks: number; data: Record<string, unknown> };
type Message = {
  role: string;
  content?: string;
  blocks?: Block[];
  continuity?: Continuity[];
  versions?: { others: { content: string; after?: Message[] }[] };
};
type Conversation = { id: string; title: string; messages: Message[] };

/** Clicks the button `testId` and reads the file it downloads. */
async function download(page: Page, testId: string): Promise<{ name: string; text: string; file: Download }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: file.suggestedFilename(), text: fs.readFileSync((await file.path())!, 'utf8'), file };
}

/** Every assistant turn of `messages`, those of the versions not shown included. */
function turns(messages: Message[]): Message[] {
  return messages.flatMap((m) =>
    m.role === 'assistant' ? [m] : (m.versions?.others ?? []).flatMap((v) => turns(v.after ?? [])),
  );
}

function thinkingBlocks(conversation: Conversation): Block[] {
  return turns(conversation.messages).flatMap((t) => (t.blocks ?? []).filter((b) => b.kind === 'thinking'));
}

/** Every stored conversation record (IndexedDB) and the index, as text. */
async function storedHistory(page: Page): Promise<Record<string, string | null>> {
  const records = await storedRecords(page);
  return { ...records, index: await page.evaluate(() => localStorage.getItem('pensive.index')) };
}

test('this conversation, with and without reasoning, as Markdown and JSON; hidden versions lose their reasoning too', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Export me mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  // A second version of the turn: the first one (with its reasoning) is hidden.
  await chat.assistant().getByTestId('regenerate').click();
  await expect(page.getByTestId('version-count')).toHaveText('2 / 2');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  const include = page.getByRole('checkbox', { name: 'Include reasoning' });
  const scope = page.getByRole('combobox', { name: 'Conversations to export' });
  // The defaults: reasoning in, the shown conversation.
  await expect(include).toBeChecked();
  await expect(scope).toHaveValue('shown');

  const withMd = await download(page, 'export-markdown');
  expect(withMd.name).toBe('pensive-export-me-mock-normal.md');
  expect(withMd.text).toMatch(/<details><summary>Thought for [^<]*<\/summary>\n\nLet me think about this carefully\./);
  expect(withMd.text).toContain(ANSWER);
  const withJson = await download(page, 'export-json');
  expect(withJson.name).toBe('pensive-export-me-mock-normal.json');
  const full: Conversation = JSON.parse(withJson.text).conversation;
  // The shown version's reasoning and the hidden one's.
  expect(thinkingBlocks(full)).toHaveLength(2);

  await include.uncheck();
  await expect(include).not.toBeChecked();
  const bareMd = await download(page, 'export-markdown');
  expect(bareMd.name).toBe('pensive-export-me-mock-normal-without-reasoning.md');
  expect(bareMd.text).not.toContain('<details>');
  expect(bareMd.text).not.toContain(REASONING);
  expect(bareMd.text).toContain('# Export me mock:normal');
  expect(bareMd.text).toContain(ANSWER);
  expect(bareMd.text).toContain('*Version 2 of 2 of this turn');

  const bareJson = await download(page, 'export-json');
  expect(bareJson.name).toBe('pensive-export-me-mock-normal-without-reasoning.json');
  expect(bareJson.text).not.toContain(REASONING);
  const bare: Conversation = JSON.parse(bareJson.text).conversation;
  expect(thinkingBlocks(bare)).toEqual([]);
  // Both versions are still there, each with its answer.
  expect(turns(bare.messages)).toHaveLength(2);
  for (const turn of turns(bare.messages)) expect(turn.blocks?.map((b) => b.text).join('')).toContain('42');

  // It imports: a conversation of its own, answers and versions, no reasoning
  // (the turn's token count stays: one "Reasoned for … · 20 tokens" header
  // with nothing to open, as for a provider that hides its reasoning).
  const file = testInfo.outputPath('without-reasoning.json');
  fs.writeFileSync(file, bareJson.text);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(chat.assistant().locator('.thinking-body')).toHaveCount(1);
  await page.getByTestId('import-json').setInputFiles(file);
  await expect(page.getByTestId('conversation-item')).toHaveCount(2);
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Export me mock:normal' })).toHaveCount(2);
  await expect(page.getByTestId('version-count')).toHaveText('2 / 2');
  await expect(chat.assistant().getByTestId('answer')).toContainText('42');
  await expect(chat.assistant().locator('.thinking-body')).toHaveCount(0);
  await expect(chat.assistant().getByTestId('thinking-block')).toHaveText(/^Reasoned for .* · 20 tokens$/);
  await expect(chat.assistant()).not.toContainText(REASONING);
});

test('an export without reasoning holds no reasoning: neither the thinking blocks nor the provider continuity of a tool loop', async ({ page }) => {
  // Issue 40: chat-completions tool rounds keep their reasoning as
  // continuity (`reasoning_content`, sent back to DeepSeek and Kimi); an
  // export without reasoning left it in the JSON.
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  await chat.send('Multiply, then tell me the date. mock:tools');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('tool-step')).toHaveCount(2);

  const withJson = await download(page, 'export-json');
  const full: Conversation = JSON.parse(withJson.text).conversation;
  const continuity = turns(full.messages).flatMap((t) => t.continuity ?? []);
  const kept = continuity.map((c) => c.data.reasoning_content).filter((t): t is string => typeof t === 'string');
  // The before-state: the rounds' reasoning is in the export with reasoning.
  expect(kept.length).toBeGreaterThan(0);
  // Long enough that the answer cannot hold one by chance.
  const reasoning = [...kept, ...thinkingBlocks(full).map((b) => b.text ?? '')].filter((t) => t.trim().length >= 12);
  expect(reasoning.length).toBeGreaterThan(0);

  await page.getByRole('checkbox', { name: 'Include reasoning' }).uncheck();
  const bareJson = await download(page, 'export-json');
  const bare: Conversation = JSON.parse(bareJson.text).conversation;
  expect(thinkingBlocks(bare)).toEqual([]);
  for (const turn of turns(bare.messages)) expect(turn.continuity).toBeUndefined();
  const bareMd = await download(page, 'export-markdown');
  for (const text of reasoning) {
    // As the JSON writes it (escaped) and as the Markdown does (raw).
    expect(bareJson.text).not.toContain(JSON.stringify(text).slice(1, -1));
    expect(bareMd.text).not.toContain(text.trim());
  }
  // The rest is there: the steps and the answer.
  expect(bareJson.text).toContain('7006652');
  expect(bareMd.text).toContain('7006652');
});

test('all conversations in one file, as JSON and Markdown, with and without reasoning; unreadable records are skipped and counted', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('First of two mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('new-conversation').click();
  await chat.send('Second of two mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('conversation-item')).toHaveCount(2);

  // An empty conversation is shown: nothing of its own to export, but all
  // the stored ones are.
  await page.getByTestId('new-conversation').click();
  await expect(page.getByTestId('user-text')).toHaveCount(0);
  await expect(page.getByTestId('export-json')).toBeDisabled();
  const scope = page.getByRole('combobox', { name: 'Conversations to export' });
  await scope.selectOption('all');
  await expect(page.getByTestId('export-json')).toBeEnabled();
  await expect(page.getByTestId('export-markdown')).toBeEnabled();

  // Stored after this tab loaded: one damaged record, one of a newer version.
  await expect.poll(async () => Object.keys(await storedRecords(page)).length).toBe(2);
  await putRecords(page, {
    damaged: '{not json',
    'from-the-future': JSON.stringify({ version: 99, conversation: { id: 'from-the-future' } }),
  });
  const before = await storedHistory(page);

  const allJson = await download(page, 'export-json');
  expect(allJson.name).toBe('pensive-all-conversations.json');
  const all = JSON.parse(allJson.text);
  expect(all.version).toBe(4); // the history schema (4: tool steps)
  expect(all.conversation).toBeUndefined();
  // Newest first, every readable one.
  expect(all.conversations.map((c: Conversation) => c.title)).toEqual(['Second of two mock:normal', 'First of two mock:normal']);
  for (const c of all.conversations) expect(thinkingBlocks(c)).toHaveLength(1);
  await expect(page.getByTestId('notice')).toContainText('2 stored conversations could not be read');
  // Reading them moved nothing: the damaged record is where it was.
  expect(await storedHistory(page)).toEqual(before);

  const allMd = await download(page, 'export-markdown');
  expect(allMd.name).toBe('pensive-all-conversations.md');
  const headings = allMd.text.split('\n').filter((l) => l.startsWith('# '));
  expect(headings).toEqual(['# Second of two mock:normal', '# First of two mock:normal']);
  expect(allMd.text.match(/<details>/g)).toHaveLength(2);
  expect(allMd.text.match(/^---$/gm)).toHaveLength(1);
  expect(allMd.text.match(/Here is the answer: \*\*42\*\*\./g)).toHaveLength(2);

  await page.getByRole('checkbox', { name: 'Include reasoning' }).uncheck();
  const bareMd = await download(page, 'export-markdown');
  expect(bareMd.name).toBe('pensive-all-conversations-without-reasoning.md');
  expect(bareMd.text).not.toContain('<details>');
  expect(bareMd.text).not.toContain(REASONING);
  expect(bareMd.text.split('\n').filter((l) => l.startsWith('# '))).toEqual(headings);
  const bareJson = await download(page, 'export-json');
  expect(bareJson.name).toBe('pensive-all-conversations-without-reasoning.json');
  expect(bareJson.text).not.toContain(REASONING);
  const bare = JSON.parse(bareJson.text);
  expect(bare.conversations).toHaveLength(2);
  for (const c of bare.conversations) expect(thinkingBlocks(c)).toEqual([]);
});

test('importing an all-conversations file adds each one beside the stored ones; a bad one changes nothing', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Kept one mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('new-conversation').click();
  await chat.send('Kept two mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByRole('combobox', { name: 'Conversations to export' }).selectOption('all');
  const exported = await download(page, 'export-json');
  const all = JSON.parse(exported.text);
  expect(all.conversations).toHaveLength(2);
  const file = testInfo.outputPath('all.json');
  fs.writeFileSync(file, exported.text);

  // A file with one bad conversation: refused whole.
  await expect.poll(async () => Object.keys(await storedRecords(page)).length).toBe(2);
  const before = await storedHistory(page);
  const bad = testInfo.outputPath('bad-all.json');
  fs.writeFileSync(bad, JSON.stringify({ version: 3, conversations: [all.conversations[0], { id: 5 }] }));
  await page.getByTestId('import-json').setInputFiles(bad);
  await expect(page.getByTestId('notice')).toContainText('Import failed');
  await expect(page.getByTestId('notice')).toContainText('conversation 2 of 2');
  await expect(page.getByTestId('notice')).toContainText('Nothing was changed');
  await expect(page.getByTestId('conversation-item')).toHaveCount(2);
  expect(await storedHistory(page)).toEqual(before);

  // The good file: both come back as conversations of their own, the stored
  // ones untouched.
  await page.getByTestId('import-json').setInputFiles(file);
  await expect(page.getByTestId('notice').filter({ hasText: 'Imported 2 conversations.' })).toHaveCount(1);
  await expect(page.getByTestId('conversation-item')).toHaveCount(4);
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Kept one mock:normal' })).toHaveCount(2);
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Kept two mock:normal' })).toHaveCount(2);
  const after = await storedHistory(page);
  for (const key of Object.keys(before).filter((k) => k !== 'index')) {
    expect(after[key], key).toBe(before[key]);
  }
  const imported = Object.entries(after)
    .filter(([k]) => k !== 'index' && !(k in before))
    .map(([, v]) => JSON.parse(v!).conversation as Conversation);
  expect(imported).toHaveLength(2);
  // Each is what was exported, under an id of its own.
  const withoutId = ({ id: _id, ...rest }: Conversation) => rest;
  expect(imported.map(withoutId).sort((a, b) => a.title.localeCompare(b.title))).toEqual(
    all.conversations.map(withoutId).sort((a: Conversation, b: Conversation) => a.title.localeCompare(b.title)),
  );
  const ids = new Set([...Object.keys(before), ...imported.map((c) => c.id)]);
  expect(ids.size).toBe(Object.keys(before).length + 2);
});
