import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// `mock:hidden-reasoning`: the provider signals that it reasons, stays silent
// for 3 s without showing the reasoning, then answers. One model per dialect
// that can hide reasoning (end2end/pensive-mocked.toml).
const DIALECTS = [
  { model: 'mock-responses', what: 'OpenAI Responses reasoning item without a summary' },
  { model: 'mock-claude', what: 'Anthropic redacted_thinking' },
  { model: 'mock-gemini', what: 'Gemini thought signature only' },
  { model: 'mock-chat', what: 'chat completions reasoning.encrypted' },
];
const SILENCE_S = 3;

for (const { model, what } of DIALECTS) {
  test(`hidden reasoning is live and truly timed: ${what}`, async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open(MOCKED);
    await page.getByTestId('model-picker').selectOption(model);
    await chat.send('Think it over quietly. mock:hidden-reasoning');

    // During the silence: a live header with a ticking timer, no text.
    const header = chat.header(chat.thinking());
    await expect(header).toHaveText(/^Thinking… \d+s$/);
    const seconds = async () => Number(/(\d+)s$/.exec((await header.textContent()) ?? '')?.[1] ?? NaN);
    const first = await seconds();
    await expect.poll(seconds, { message: 'the live timer counts up during the silence' }).toBeGreaterThan(first);
    await expect(header).toHaveText(/^Thinking… \d+s$/);
    await expect(chat.assistant()).toHaveAttribute('data-status', 'thinking');

    // Afterwards: the provider hid it, and it took the silence's seconds.
    await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
    await expect(header).toHaveText(/^Thought for \d+s · reasoning hidden by the provider( · \d+ tokens)?$/);
    const took = Number(/^Thought for (\d+)s/.exec((await header.textContent()) ?? '')?.[1]);
    expect(Math.abs(took - SILENCE_S), `"${await header.textContent()}"`).toBeLessThanOrEqual(1);
    await expect(header).toBeDisabled();
    await expect(chat.assistant().getByTestId('answer')).toHaveText('Worked it out privately: 42.');
    await chat.expectNoConsoleErrors();
  });
}
