import * as fs from 'fs';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';
import type { Locator, Page } from '@playwright/test';

// Tools in the thinking timeline: thinking, tool steps and answer text in
// the order the model produced them, live and after a reload; the demo's
// calculate step with no setup; parallel calls; a phone screen.

/** The mocked server's page with its chat-completions model picked. */
async function openChatModel(page: Page): Promise<ChatPage> {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  return chat;
}

/** The turn's blocks in page order: "thinking", "tool:<name>", "answer". */
async function timeline(turn: Locator): Promise<string[]> {
  return turn
    .locator('[data-testid="thinking-block"], [data-testid="tool-step"], [data-testid="answer"]')
    .evaluateAll((nodes) =>
      nodes.map((n) => {
        const id = n.getAttribute('data-testid');
        if (id === 'tool-step') return `tool:${n.querySelector('[data-testid="tool-name"]')?.textContent}`;
        return id === 'thinking-block' ? 'thinking' : 'answer';
      }),
    );
}

test('The demo calls calculate between two thoughts, and the step survives a reload and both exports', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await chat.send('What is 1234 * 5678?');
  const turn = chat.assistant();
  const step = turn.getByTestId('tool-step');
  // Live: the step appears while the turn streams, after the first thought.
  await expect(step).toBeVisible();
  await expect(step.getByTestId('tool-name')).toHaveText('calculate');
  await expect(step.getByTestId('tool-server')).toHaveText('builtin');
  await expect(turn).toHaveAttribute('data-status', 'done');
  expect(await timeline(turn)).toEqual(['thinking', 'tool:calculate', 'thinking', 'answer']);
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(step.getByTestId('tool-state')).toHaveText(/^done · \d+\.\ds$/);
  await expect(turn.getByTestId('answer')).toContainText('1234 * 5678 = 7006652');
  await expect(turn.getByTestId('turn-times')).toHaveText(/^Thought \d+s · 1 tool \d+\.\ds$/);

  // Folded by default; one click shows the arguments and the result.
  const output = step.getByTestId('tool-output');
  await expect(output).toBeHidden();
  await step.locator('button.tool-step-header').click();
  await expect(step.locator('button.tool-step-header')).toHaveAttribute('aria-expanded', 'true');
  await expect(step.getByTestId('tool-arguments')).toContainText('"expression": "1234 * 5678"');
  await expect(output).toHaveText('7006652');

  // A reload keeps every block in its place.
  await page.reload();
  await chat.hydrated();
  const replayed = chat.assistant();
  // Formatted (bold) once the renderer is ready, which the export needs too.
  await expect(replayed.getByTestId('answer').locator('strong').first()).toHaveText('1234 * 5678 = 7006652');
  await expect(replayed.getByTestId('tool-step')).toHaveCount(1);
  expect(await timeline(replayed)).toEqual(['thinking', 'tool:calculate', 'thinking', 'answer']);
  await expect(replayed.getByTestId('tool-step')).toHaveAttribute('data-state', 'done');
  await expect(replayed.getByTestId('turn-times')).toHaveText(/^Thought \d+s · 1 tool \d+\.\ds$/);

  // The Markdown export carries the step as <details>, the JSON export whole.
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  expect(markdown).toMatch(/<details><summary>Tool calculate \(builtin\) · done · \d+\.\ds<\/summary>/);
  expect(markdown).toContain('7006652');
  const [js] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = JSON.parse(fs.readFileSync((await js.path())!, 'utf8'));
  const blocks = exported.conversation.messages[1].blocks;
  expect(blocks.map((b: { kind: string }) => b.kind)).toEqual(['thinking', 'tool', 'thinking', 'answer']);
  expect(blocks[1]).toMatchObject({ name: 'builtin__calculate', server: 'builtin', output: '7006652' });
  await chat.expectNoConsoleErrors();
});

test('Search finds a word in a tool step\'s arguments and opens that step at it', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await chat.send('What is 1234 * 5678?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  // Another conversation is shown when the search starts.
  await page.getByTestId('new-conversation').click();
  await expect(page.getByTestId('user-text')).toHaveCount(0);

  // "expression" is only in the call's arguments (`{"expression": …}`).
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.fill('expression');
  const result = page.getByTestId('search-result');
  await expect(result).toHaveCount(1);
  await expect(result).toHaveAttribute('data-part', 'tool');
  await result.getByRole('button').click();
  await expect(page.getByTestId('user-text')).toHaveText(['What is 1234 * 5678?']);

  // The step opens (it is folded by default) and the word is highlighted in it.
  const step = chat.assistant().getByTestId('tool-step');
  await expect(step.locator('button.tool-step-header')).toHaveAttribute('aria-expanded', 'true');
  await expect
    .poll(() =>
      page.evaluate(() => {
        const highlight = (CSS as any).highlights?.get('pensive-search');
        if (!highlight) return null;
        const [range] = [...highlight] as Range[];
        return {
          text: range.toString(),
          inStep: !!range.startContainer.parentElement?.closest('[data-testid="tool-arguments"]'),
        };
      }),
    )
    .toEqual({ text: 'expression', inStep: true });
  await chat.expectNoConsoleErrors();
});

test('think, tool, think, tool, answer from a chat-completions model, in order, live and after a reload', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Multiply, then tell me the date. mock:tools');
  const turn = chat.assistant();
  // Live: the first step shows before the second exists.
  await expect(turn.getByTestId('tool-step')).toHaveCount(1);
  await expect(turn.getByTestId('tool-step')).toHaveCount(2);
  await expect(turn).toHaveAttribute('data-status', 'done');
  const order = ['thinking', 'tool:calculate', 'thinking', 'tool:current_time', 'thinking', 'answer'];
  expect(await timeline(turn)).toEqual(order);
  await expect(turn.getByTestId('answer')).toContainText('1234 × 5678 = 7006652, computed on 20');
  await expect(turn.getByTestId('turn-times')).toHaveText(/· 2 tools \d+\.\ds$/);
  await page.reload();
  await chat.hydrated();
  expect(await timeline(chat.assistant())).toEqual(order);

  // The next turn sends both calls and results back (the mock refuses a
  // call without its result, as OpenAI does).
  await chat.send('Thanks! mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('turn-error')).toHaveCount(0);
  await chat.expectNoConsoleErrors();
});

// Every dialect's tool loop in the page: think, tool, think, tool, answer,
// live and after a reload, and the next turn accepted by the mock's rules
// for that provider (each wants its own continuity back).
for (const [model, complete] of [
  ['mock-claude', false],
  ['mock-responses', false],
  ['mock-gemini', true],
  ['mock-ollama', true],
] as const) {
  test(`think, tool, think, tool, answer from ${model}, live and after a reload`, async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open(MOCKED);
    await page.getByTestId('model-picker').selectOption(model);
    await chat.send('Multiply, then tell me the date. mock:tools');
    const turn = chat.assistant();
    await expect(turn.getByTestId('tool-step')).toHaveCount(2);
    await expect(turn).toHaveAttribute('data-status', 'done');
    const order = ['thinking', 'tool:calculate', 'thinking', 'tool:current_time', 'thinking', 'answer'];
    expect(await timeline(turn)).toEqual(order);
    await expect(turn.getByTestId('answer')).toContainText('1234 × 5678 = 7006652');
    // Gemini and Ollama send a call whole: the step says so.
    const step = turn.getByTestId('tool-step').first();
    await step.locator('button.tool-step-header').click();
    await expect(step.locator('.tool-label').first()).toHaveText(complete ? 'Arguments (arrived complete)' : 'Arguments');
    await page.reload();
    await chat.hydrated();
    expect(await timeline(chat.assistant())).toEqual(order);
    await chat.send('Thanks! mock:normal');
    await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
    await expect(chat.assistant().getByTestId('turn-error')).toHaveCount(0);
    await chat.expectNoConsoleErrors();
  });
}

test('Two parallel calls each get their step and result', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Two squares mock:tools-parallel');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  expect(await timeline(turn)).toEqual(['thinking', 'tool:calculate', 'tool:calculate', 'thinking', 'answer']);
  const outputs = turn.getByTestId('tool-output');
  for (const header of await turn.locator('button.tool-step-header').all()) await header.click();
  await expect(outputs).toHaveText(['144', '169']);
  await expect(turn.getByTestId('answer')).toContainText('The products are 144 and 169.');
});

test('On a phone the tool step fits the screen and opens', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  const chat = new ChatPage(page);
  await chat.open();
  await chat.send('What is (17 + 25) * 1000 / 7?');
  const step = chat.assistant().getByTestId('tool-step');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await step.locator('button.tool-step-header').click();
  await expect(step.getByTestId('tool-output')).toHaveText('6000');
  const box = await step.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBe(0);
  // The top bar of a server with one model: Tools keeps clear of Options
  // and is still called Tools.
  const tools = await page.getByRole('button', { name: /^Tools/ }).boundingBox();
  const options = await page.getByRole('button', { name: 'Options' }).boundingBox();
  expect(tools!.x + tools!.width, 'Tools ends before Options starts').toBeLessThanOrEqual(options!.x);
  // Each thinking block's name shows at least a few letters, never a lone "·".
  const topics = chat.assistant().getByTestId('thinking-topic');
  await expect(topics).toHaveCount(2);
  for (const width of await topics.evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect().width))) {
    expect(width).toBeGreaterThan(30);
  }
});

test('A write to the files server waits for the user: Deny tells the model, Allow once runs it', async ({ page }) => {
  const note = '/tmp/pensive-e2e-files/note.txt';
  fs.rmSync(note, { force: true });
  const chat = await openChatModel(page);

  await chat.send('Save the note. mock:tools-write');
  let step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  await expect(step.getByTestId('tool-state')).toHaveText('waiting for your approval');
  await expect(step.getByTestId('tool-approval')).toHaveText(
    'The model wants to run write_file from the files server with these arguments.',
  );
  // The complete arguments are shown before anything runs.
  await expect(step.getByTestId('tool-arguments')).toContainText('"content": "Written after approval."');
  expect(fs.existsSync(note)).toBe(false);
  await step.getByTestId('deny').click();
  await expect(step).toHaveAttribute('data-state', 'denied');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('The tool said: The user declined this tool call.');
  expect(fs.existsSync(note)).toBe(false);

  await chat.send('Please, save it now. mock:tools-write');
  step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  await step.getByTestId('allow-once').click();
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(step.getByTestId('allow-once')).toHaveCount(0);
  await expect(chat.assistant().getByTestId('answer')).toContainText('The tool said: Successfully wrote');
  expect(fs.readFileSync(note, 'utf8')).toBe('Written after approval.');

  // A read from the trusted server runs without asking.
  await chat.send('Read it back. mock:tools-read');
  step = chat.assistant().getByTestId('tool-step');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('The tool said: Written after approval.');
  await chat.expectNoConsoleErrors();
});

test('Two calls under one id are two steps: Allow runs the one shown, the other never runs', async ({ page }) => {
  // A broken gateway (or a model that writes its own ids) sends two writes
  // under the id `dup`: first to hidden.txt, then to shown.txt.
  const hidden = '/tmp/pensive-e2e-files/hidden.txt';
  const shown = '/tmp/pensive-e2e-files/shown.txt';
  fs.rmSync(hidden, { force: true });
  fs.rmSync(shown, { force: true });
  const chat = await openChatModel(page);
  await chat.send('Save both notes. mock:tools-same-id');
  const turn = chat.assistant();
  const steps = turn.getByTestId('tool-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0)).toHaveAttribute('data-state', 'waiting');
  await expect(steps.nth(1)).toHaveAttribute('data-state', 'waiting');
  await expect(steps.nth(0).getByTestId('tool-arguments')).toContainText('hidden.txt');
  await expect(steps.nth(1).getByTestId('tool-arguments')).toContainText('shown.txt');

  // The user allows the write they read, for the conversation: its
  // buttons go; the round's calls run together once every step is answered.
  await steps.nth(1).getByTestId('allow-conversation').click();
  await expect(steps.nth(1).getByTestId('allow-conversation')).toHaveCount(0);
  // The other still waits for its own answer, and has not run.
  await expect(steps.nth(0)).toHaveAttribute('data-state', 'waiting');
  await expect(steps.nth(0).getByTestId('deny')).toBeVisible();
  expect(fs.existsSync(hidden)).toBe(false);
  await steps.nth(0).getByTestId('deny').click();
  await expect(steps.nth(0)).toHaveAttribute('data-state', 'denied');
  await expect(steps.nth(1)).toHaveAttribute('data-state', 'done');
  await expect(turn).toHaveAttribute('data-status', 'done');
  expect(fs.readFileSync(shown, 'utf8')).toBe('Written to shown.txt.');
  expect(fs.existsSync(hidden)).toBe(false);

  // "Allow in this conversation" allowed the tool of the step clicked:
  // the next write in this conversation runs without asking.
  await chat.send('Save the note too. mock:tools-write');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('tool-step')).toHaveAttribute('data-state', 'done');
  await chat.expectNoConsoleErrors();

  // After a reload the steps are as they ended, with no buttons.
  await page.reload();
  await chat.hydrated();
  const stored = chat.assistant(0).getByTestId('tool-step');
  await expect(stored).toHaveCount(2);
  await expect(stored.nth(0)).toHaveAttribute('data-state', 'denied');
  await expect(stored.nth(1)).toHaveAttribute('data-state', 'done');
  await expect(page.getByRole('button', { name: /^(Allow|Deny)/ })).toHaveCount(0);
});

test('After the demo\'s calculate turn a DeepSeek-like model answers in the same conversation, twice, and its own tool turns too', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const picker = page.getByTestId('model-picker');
  await picker.selectOption('demo');
  await chat.send('What is 1234 * 5678?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('tool-step')).toHaveAttribute('data-state', 'done');

  // DeepSeek in thinking mode refuses another model's calls sent back
  // without its reasoning: they go as text, and it answers, every time.
  await picker.selectOption('mock-deepseek');
  await chat.send('And now? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).not.toBeEmpty();
  await chat.send('Once more. mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  // Its own tool turn, then the turn after it: its reasoning goes back with
  // its calls (the page's request, several turns deep), also after a reload.
  await chat.send('Two tools please mock:tools');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('tool-step')).toHaveCount(2);
  await chat.send('And after that? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.reload();
  await chat.hydrated();
  await chat.send('After a reload? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.locator('[data-testid="assistant-message"][data-status="error"]')).toHaveCount(0);
  await chat.expectNoConsoleErrors();
});

test('With a DeepSeek-like model as the server\'s default, a tool turn and the turn after it both answer', async ({ page, request }) => {
  // A conversation that never picked a model sends no `model`, and the
  // server answers with its default. The mocked server's default is the
  // Responses mock (other stories rely on it), so this story plays a
  // server whose default is DeepSeek on the page's own requests: one that
  // names no model goes to mock-deepseek. What the page sends — continuity
  // for the model it takes as the default, no model named — is unchanged.
  await page.route('**/api/chat', async (route) => {
    const body = route.request().postDataJSON();
    if (body?.request && !body.request.model) body.request.model = 'mock-deepseek';
    await route.continue({ postData: JSON.stringify(body) });
  });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Two tools please mock:tools');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('tool-step')).toHaveCount(2);
  await chat.send('And after that? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).not.toBeEmpty();
  await expect(page.locator('[data-testid="assistant-message"][data-status="error"]')).toHaveCount(0);

  // DeepSeek got its reasoning back with its calls (its thinking mode
  // refuses a tool-call message without it).
  const recorded: { path: string; body: { model?: string; messages?: { role: string; tool_calls?: unknown[]; reasoning_content?: string }[] } }[] =
    await (await request.get(`${MOCK_UPSTREAM}/_mock/requests`)).json();
  const last = recorded.filter((r) => r.path === '/v1/chat/completions').pop();
  expect(last?.body.model).toBe('deepseek-v4-flash');
  const calls = (last?.body.messages ?? []).filter((m) => m.role === 'assistant' && m.tool_calls?.length);
  expect(calls.length).toBeGreaterThan(0);
  for (const message of calls) expect(message.reasoning_content ?? '').not.toBe('');
  await chat.expectNoConsoleErrors();
});

test('A tool that hangs times out at its server\'s limit, and the model is told so', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Run the slow job. mock:tools-slow');
  const step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'running');
  await expect(step).toHaveAttribute('data-state', 'timeout');
  await expect(step.getByTestId('tool-state')).toHaveText(/^timed out · 3\.\ds$/);
  await expect(chat.assistant().getByTestId('answer')).toHaveText('The tool said: The tool did not answer within 3s.');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
});

test('Stop during a tool call cancels it and the step says so, also after a reload', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Run the slow job. mock:tools-slow');
  const step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'running');
  await page.getByTestId('stop').click();
  await expect(chat.assistant()).toHaveAttribute('data-status', 'stopped');
  await expect(step).toHaveAttribute('data-state', 'cancelled');
  await expect(step.getByTestId('tool-state')).toHaveText('cancelled');
  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant().getByTestId('tool-step')).toHaveAttribute('data-state', 'cancelled');
  await chat.expectNoConsoleErrors();
});

test('At the limit of 12 tool calls the turn says so, and Continue lets the model finish', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Keep going mock:tools-loop');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(turn.getByTestId('tool-step')).toHaveCount(13);
  await expect(turn.locator('[data-testid="tool-step"][data-state="done"]')).toHaveCount(12);
  await expect(turn.getByTestId('tool-step').last()).toHaveAttribute('data-state', 'cancelled');
  await expect(turn.getByTestId('cut-off')).toHaveText('Stopped at the limit of 12 tool calls');
  await turn.getByTestId('continue').click();
  await expect(turn.getByTestId('answer')).toHaveText('All thirteen products are done.');
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(turn.getByTestId('cut-off')).toHaveCount(0);
  await expect(turn.getByTestId('tool-step')).toHaveCount(13);
  await chat.expectNoConsoleErrors();
});
