import { expect, test } from './fixtures/test';
import * as fs from 'fs';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { putRecords, storedRecords } from './fixtures/stored';
import type { Page } from '@playwright/test';

/** Asks `question` of the mocked model and downloads the conversation as JSON (parsed). */
async function askAndExport(page: Page, question: string) {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send(question);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  return JSON.parse(fs.readFileSync((await json.path())!, 'utf8'));
}

test('export as Markdown and JSON; importing the JSON brings back the same conversation', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Export me mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  expect(markdown).toContain('# Export me mock:normal');
  expect(markdown).toMatch(/<details><summary>Thought for (\d+s|less than a second) · a summary by the provider<\/summary>\n\nLet me think about this carefully\./);
  expect(markdown).toContain('Here is the answer: **42**.');

  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = fs.readFileSync((await json.path())!, 'utf8');
  const file = testInfo.outputPath('conversation.json');
  fs.writeFileSync(file, exported);

  // Delete it, then import the file.
  await page.getByTestId('conversation-item').first().getByTestId('delete').click();
  await expect(page.getByTestId('conversation-item')).toHaveCount(0);
  await page.getByTestId('import-json').setInputFiles(file);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(page.getByTestId('user-text')).toHaveText(['Export me mock:normal']);
  const [again] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  expect(JSON.parse(fs.readFileSync((await again.path())!, 'utf8'))).toEqual(JSON.parse(exported));
});

test('a bad import file gives a clear error and changes nothing', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Keep me mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const bad = testInfo.outputPath('bad.json');
  fs.writeFileSync(bad, '{"version": 1, "conversation": {"id": 5}}');
  await page.getByTestId('import-json').setInputFiles(bad);
  await expect(page.getByTestId('notice')).toContainText('Import failed');
  await expect(page.getByTestId('notice')).toContainText('Nothing was changed');
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(page.getByTestId('user-text')).toHaveText(['Keep me mock:normal']);
});

test('the Markdown export of hostile model output holds no HTML but its own; the JSON keeps it as it was', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Render this mock:hostile-markdown');
  // A long scenario: reasoning and answer each stream it whole, 6 bytes a chunk.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 45_000 });

  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  // Every `<` that could open HTML (a tag, a comment, an autolink) belongs to
  // the export's own <details> and <summary>: the model's reads as text.
  const tags = markdown.match(/<[A-Za-z/!?][^>\n]*>?/g) ?? [];
  expect(tags.filter((t) => !/^<\/?(details|summary)>$/.test(t))).toEqual([]);
  expect(tags.filter((t) => t === '<details>')).toHaveLength(1);
  // What the model wrote is still there to read, in the reasoning and the answer.
  expect(markdown.match(/&lt;script>window\.__pwned = 'script'&lt;\/script>/g)).toHaveLength(2);
  expect(markdown.match(/&lt;img src=x onerror="window\.__pwned = 'img'">/g)).toHaveLength(2);
  expect(markdown.match(/&lt;iframe src="https:\/\/tracker\.invalid\/frame">&lt;\/iframe>/g)).toHaveLength(2);
  // The headline (a bold line with a frame in it) labels the block as text.
  expect(markdown).toMatch(
    /<summary>Thought for [^<]* · Framing &lt;iframe src=&quot;https:\/\/tracker\.invalid\/frame&quot;&gt;&lt;\/iframe&gt;<\/summary>/,
  );

  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = JSON.parse(fs.readFileSync((await json.path())!, 'utf8'));
  const [, assistant] = exported.conversation.messages;
  for (const block of assistant.blocks) {
    expect(block.text).toContain("<script>window.__pwned = 'script'</script>");
    expect(block.text).toContain('<iframe src="https://tracker.invalid/frame"></iframe>');
  }
});

test('an imported conversation never takes the id of one already stored, even one this tab does not list', async ({ page }, testInfo) => {
  const exported = await askAndExport(page, 'Original mock:normal');
  const id: string = exported.conversation.id;

  // Another tab saved a conversation after this one loaded (this tab's list
  // does not know it yet), and a newer version left a record of its own.
  const stored = {
    'other-tab': JSON.stringify({
      ...exported,
      conversation: { ...exported.conversation, id: 'other-tab', title: 'Saved by another tab' },
    }),
    'from-the-future': JSON.stringify({ version: 99, conversation: { id: 'from-the-future' } }),
  };
  await expect.poll(async () => Object.keys(await storedRecords(page))).toEqual([id]);
  await putRecords(page, stored);
  const before = await storedRecords(page);

  for (const [taken, title] of [
    [id, 'Imported over the original'],
    ['other-tab', 'Imported over the other tab'],
    ['from-the-future', 'Imported over the future'],
  ]) {
    const file = testInfo.outputPath(`${taken}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...exported, conversation: { ...exported.conversation, id: taken, title } }));
    await page.getByTestId('import-json').setInputFiles(file);
    await expect(page.getByTestId('conversation-item').filter({ hasText: title })).toHaveCount(1);
  }

  // Storage itself: every record that was there is unchanged, and each
  // import is a record of its own under a new id.
  await expect.poll(async () => Object.keys(await storedRecords(page)).length).toBe(6);
  const after = await storedRecords(page);
  for (const key of Object.keys(before)) {
    expect(after[key], key).toBe(before[key]);
  }
  const imported = Object.entries(after)
    .filter(([k]) => !(k in before))
    .map(([k, v]) => [k, JSON.parse(v!).conversation.title]);
  expect(imported.map(([, title]) => title).sort()).toEqual([
    'Imported over the future',
    'Imported over the original',
    'Imported over the other tab',
  ]);
  const index = JSON.parse((await page.evaluate(() => localStorage.getItem('pensive.index')))!);
  for (const [key, title] of imported) {
    const line = index.conversations.find((c: { title: string }) => c.title === title);
    expect(key, title).toBe(line.id);
  }
});

test('an import over 20 MB is refused before the file is read', async ({ page }, testInfo) => {
  // Counts every way a page can read a file's contents.
  await page.addInitScript(() => {
    const w = window as unknown as { __reads: number };
    w.__reads = 0;
    const count = <T extends object>(proto: T, name: keyof T) => {
      const original = proto[name] as unknown as (...a: unknown[]) => unknown;
      (proto as Record<keyof T, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
        w.__reads += 1;
        return original.apply(this, args);
      };
    };
    count(Blob.prototype, 'text');
    count(Blob.prototype, 'arrayBuffer');
    count(Blob.prototype, 'stream');
    count(FileReader.prototype, 'readAsText');
    count(FileReader.prototype, 'readAsArrayBuffer');
  });
  const exported = await askAndExport(page, 'Keep me mock:normal');

  // A real conversation, padded past the limit with whitespace (valid JSON).
  const huge = testInfo.outputPath('huge.json');
  const conversation = { ...exported, conversation: { ...exported.conversation, id: 'huge', title: 'Too big' } };
  fs.writeFileSync(huge, JSON.stringify(conversation) + ' '.repeat(20 * 1024 * 1024 + 1));
  await page.getByTestId('import-json').setInputFiles(huge);
  await expect(page.getByTestId('notice')).toContainText('Import failed: That file is 20.1 MB; an import can be at most 20 MB.');
  await expect(page.getByTestId('notice')).toContainText('Nothing was changed');
  expect(await page.evaluate(() => (window as unknown as { __reads: number }).__reads)).toBe(0);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);

  // Just under the limit, the same conversation imports (and is read once).
  const fits = testInfo.outputPath('fits.json');
  const text = JSON.stringify(conversation);
  fs.writeFileSync(fits, text + ' '.repeat(20 * 1024 * 1024 - Buffer.byteLength(text)));
  await page.getByTestId('import-json').setInputFiles(fits);
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Too big' })).toHaveCount(1);
  expect(await page.evaluate(() => (window as unknown as { __reads: number }).__reads)).toBe(1);
});

test('an import past its caps (messages, title) is refused naming the cap, and nothing stored is touched', async ({ page }, testInfo) => {
  const exported = await askAndExport(page, 'Keep me mock:normal');
  const [question, answer] = exported.conversation.messages;

  // 1,001 turns: 2,002 messages, past the 2,000 an import may hold.
  const long = testInfo.outputPath('long.json');
  const messages = Array.from({ length: 1001 }, () => [question, answer]).flat();
  fs.writeFileSync(long, JSON.stringify({ ...exported, conversation: { ...exported.conversation, id: 'long', title: 'Long', messages } }));
  await page.getByTestId('import-json').setInputFiles(long);
  await expect(page.getByTestId('notice').filter({ hasText: '2,002 messages' })).toContainText(
    'Import failed: That conversation has 2,002 messages; an import can hold at most 2,000 per conversation. Nothing was changed.',
  );

  // A title that would fill the list kept in localStorage.
  const titled = testInfo.outputPath('titled.json');
  fs.writeFileSync(titled, JSON.stringify({ ...exported, conversation: { ...exported.conversation, id: 'titled', title: 'T'.repeat(100_000) } }));
  await page.getByTestId('import-json').setInputFiles(titled);
  await expect(page.getByTestId('notice').filter({ hasText: 'title' })).toContainText(
    'has a title of 100,000 characters; an import can carry at most 500.',
  );

  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(page.getByTestId('user-text')).toHaveText(['Keep me mock:normal']);
  // Under the caps the same conversation imports.
  const fits = testInfo.outputPath('fits.json');
  fs.writeFileSync(fits, JSON.stringify({ ...exported, conversation: { ...exported.conversation, id: 'fits', title: 'Fits' } }));
  await page.getByTestId('import-json').setInputFiles(fits);
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Fits' })).toHaveCount(1);
});

test('a conversation of 1,000 turns opens at its latest messages, and earlier ones come when asked, also after a reload and from search', async ({ page }, testInfo) => {
  const exported = await askAndExport(page, 'Short one mock:normal');
  const [question, answer] = exported.conversation.messages;
  // 1,000 turns (the import cap), each question numbered, the first one findable.
  const messages = Array.from({ length: 1000 }, (_, i) => [
    { ...question, content: i === 0 ? 'The very first question, about zircon' : `Question number ${i + 1}` },
    answer,
  ]).flat();
  const path = testInfo.outputPath('thousand.json');
  fs.writeFileSync(path, JSON.stringify({ ...exported, conversation: { ...exported.conversation, id: 'thousand', title: 'A thousand turns', messages } }));
  // Long tasks while it opens, for the record (the assertions are about what is laid out).
  await page.evaluate(() => {
    const w = window as unknown as { __longest: number };
    w.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration);
    }).observe({ type: 'longtask' });
  });
  await page.getByTestId('import-json').setInputFiles(path);
  const users = page.getByTestId('user-text');
  await expect(users.last()).toHaveText('Question number 1000');
  // The latest 60 messages are laid out, not 2,000.
  await expect(page.locator('.conversation-content > .message')).toHaveCount(60);
  testInfo.annotations.push({ type: 'longest task while opening (ms)', description: String(await page.evaluate(() => (window as unknown as { __longest: number }).__longest)) });
  const earlier = page.getByTestId('show-earlier');
  await expect(earlier).toHaveText('Show 60 earlier messages (1,940 not shown)');
  await earlier.click();
  await expect(page.locator('.conversation-content > .message')).toHaveCount(120);
  await expect(users.first()).toHaveText('Question number 941');

  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(users.last()).toHaveText('Question number 1000');
  await expect(page.locator('.conversation-content > .message')).toHaveCount(60);

  // A search result far above the window is rendered and revealed.
  await page.getByTestId('search-conversations').fill('zircon');
  await page.getByTestId('search-result').first().click();
  await expect(users.first()).toHaveText('The very first question, about zircon');
  await expect(users.first()).toBeInViewport();
});
