import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';

test('with several models configured, the picker chooses one and the conversation remembers it', async ({ page, request }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const picker = page.getByTestId('model-picker');
  await expect(picker.locator('option')).toHaveText(['Mock (OpenAI Responses)', 'Mock Claude', 'Mock Gemini', 'Mock (chat completions)', 'Mock llama.cpp', 'Mock Ollama', 'Mock DeepSeek', 'Demo']);
  await expect(picker).toHaveValue('mock-responses');
  await picker.selectOption('mock-claude');
  await chat.send('Which model? marker-claude-5521 mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const recorded = await (await request.get(`${MOCK_UPSTREAM}/_mock/requests`)).json();
  const mine = recorded.filter((r: any) => JSON.stringify(r.body).includes('marker-claude-5521'));
  expect(mine.map((r: any) => r.dialect)).toEqual(['anthropic']);

  // A new conversation can use another model; switching back restores Claude.
  await page.getByTestId('new-conversation').click();
  await picker.selectOption('mock-responses');
  await chat.send('Other one mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('conversation-item').filter({ hasText: 'Which model?' }).locator('.conversation-title').click();
  await expect(picker).toHaveValue('mock-claude');
  await page.reload();
  await chat.hydrated();
  await expect(picker).toHaveValue('mock-claude');
});
