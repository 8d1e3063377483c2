import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';

test('thinking is never sent back to the model in later turns', async ({ page, request }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('first turn mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await chat.send('second turn, unique-marker-7731 mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const recorded = await (await request.get(`${MOCK_UPSTREAM}/_mock/requests`)).json();
  const second = recorded.filter((r: any) => JSON.stringify(r.body).includes('unique-marker-7731'));
  expect(second).toHaveLength(1);
  const body = JSON.stringify(second[0].body);
  expect(body).toContain('Here is the answer: **42**.');
  expect(body).not.toContain('Let me think about this carefully');
});
