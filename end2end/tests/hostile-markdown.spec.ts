import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// Model output is untrusted. The fixture already fails this story on any CSP
// violation (an inline style from an aligned table would be one); here we check
// that nothing the model wrote runs, loads or leaves the page.
test('hostile markdown in reasoning and answer is shown, never run or loaded', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Render this mock:hostile-markdown');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await chat.header(chat.thinking()).click();

  for (const part of [turn.locator('.thinking-body'), turn.getByTestId('answer')]) {
    // Raw HTML is visible as text.
    await expect(part).toContainText("<script>window.__pwned = 'script'</script>");
    await expect(part).toContainText('<img src=x onerror=');
    // The safe link works and opens nothing with access to this page.
    const safe = part.getByRole('link', { name: 'safe' });
    await expect(safe).toHaveAttribute('href', 'https://example.com/docs');
    await expect(safe).toHaveAttribute('rel', 'noopener noreferrer');
    // The script links are text: their words remain, their targets do not.
    await expect(part).toContainText('plain');
    await expect(part).toContainText('encoded');
    await expect(part.getByRole('link', { name: 'plain' })).toHaveCount(0);
    await expect(part.getByRole('link', { name: 'encoded' })).toHaveCount(0);
    // The image is a labelled link, not a load.
    await expect(part.locator('a.md-image')).toHaveAttribute('href', /^https:\/\/tracker\.invalid\//);
    await expect(part.locator('a.md-image')).toHaveText('tracker');
    // The footnote shows its label and takes no id (none can collide with the app's).
    await expect(part.locator('.footnote-definition-label')).toHaveText('app');
    await expect(part.locator('[id]')).toHaveCount(0);
    await expect(part.locator('table td').last()).toHaveText('2');
    // Hostile LaTeX (HOSTILE_MATH): link, class, style and character commands
    // show as their source, as code; raw HTML in \text is text in MathML.
    await expect(part.locator('code.math-error')).toHaveCount(6);
    await expect(part.locator('code.math-error').first()).toHaveText("$\\href{javascript:window.__pwned='href'}{click}$");
    await expect(part.locator('math')).toHaveCount(2);
    await expect(part.locator('math mtext')).toHaveText('<a href=javascript:alert(1) onclick=alert(2)>z</a>');
  }

  const found = await turn.evaluate((el) => ({
    elements: el.querySelectorAll('script, img, iframe, object, embed, svg, style, [style], math a, math [href], math [class]').length,
    mathHtml: [...el.querySelectorAll('math *')].filter((node) => node.namespaceURI !== 'http://www.w3.org/1998/Math/MathML').length,
    handlers: [...el.querySelectorAll('*')].filter((node) =>
      [...node.attributes].some((attribute) => attribute.name.startsWith('on')),
    ).length,
    hrefs: [...el.querySelectorAll('a[href]')].map((a) => a.getAttribute('href') ?? ''),
  }));
  expect(found.elements).toBe(0);
  expect(found.mathHtml).toBe(0);
  expect(found.handlers).toBe(0);
  for (const href of found.hrefs) expect(href).toMatch(/^https:\/\//);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  expect(requested.filter((url) => url.includes('tracker.invalid'))).toEqual([]);
  await chat.expectNoConsoleErrors();
});
