// Which clicks on a link the app follows itself: the others (another tab or window, a download)
// are the browser's.

type Click = { button: number; metaKey: boolean; altKey: boolean; ctrlKey: boolean; shiftKey: boolean };

/** The main button, no key asking for another tab, window or download, and a link for this tab. */
export function isPlainClick(event: Click, link: HTMLAnchorElement): boolean {
  return (
    event.button === 0 &&
    !event.metaKey &&
    !event.altKey &&
    !event.ctrlKey &&
    !event.shiftKey &&
    (!link.target || link.target === '_self')
  );
}
