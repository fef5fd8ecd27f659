import { useEffect, useState } from 'preact/hooks';

/** Studio paths: `/` or `/studio/<screen>/…`; deep links load the same page. */
export function currentPath(): string[] {
  const path = location.pathname.replace(/^\/studio\/?/, '').replace(/^\//, '');
  return path === '' ? [] : path.split('/').map(decodeURIComponent);
}

export function href(...segments: string[]): string {
  return `/studio/${segments.map(encodeURIComponent).join('/')}`;
}

export function navigate(to: string): void {
  history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** Re-renders on navigation; returns the path segments after /studio. */
export function useRoute(): string[] {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return path;
}

/** A same-page link: plain clicks navigate without a reload; modified clicks open as usual. */
export function onLink(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null);
  if (anchor === null || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/');
}
