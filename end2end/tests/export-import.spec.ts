import { expect, test } from './fixtures/test';
import * as fs from 'fs';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('export as Markdown and JSON; importing the JSON brings back the same conversation', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Export me mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  expect(markdown).toContain('# Export me mock:normal');
  expect(markdown).toMatch(/<details><summary>Thought for (\d+s|less than a second)<\/summary>\n\nLet me think about this carefully\./);
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
