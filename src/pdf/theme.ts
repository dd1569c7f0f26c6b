import type { Template } from './model.ts';

export const DEFAULT_ACCENT = '#1F4E79';

export interface Theme {
  template: Template;
  accent: string;
  /** Table head: background and text colour. */
  headFill: string;
  headText: string;
  /** Alternate row background (null: none). */
  stripeFill: string | null;
  linkColor: string;
  text: string;
  muted: string;
  ruleColor: string;
}

/** `classic` paints the table head with the accent; `stripe` uses the accent on links only. */
export function themeFor(template: Template, accentColor: string | null | undefined): Theme {
  const accent = accentColor && /^#[0-9a-fA-F]{6}$/.test(accentColor) ? accentColor.toUpperCase() : DEFAULT_ACCENT;
  if (template === 'stripe') {
    return {
      template,
      accent,
      headFill: '#EDEDED',
      headText: '#222222',
      stripeFill: '#F6F6F6',
      linkColor: accent,
      text: '#222222',
      muted: '#666666',
      ruleColor: '#CCCCCC',
    };
  }
  return {
    template: 'classic',
    accent,
    headFill: accent,
    headText: readableOn(accent),
    stripeFill: null,
    linkColor: '#222222',
    text: '#222222',
    muted: '#666666',
    ruleColor: '#BBBBBB',
  };
}

/** White or near-black, whichever reads better on the background (WCAG relative luminance). */
export function readableOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return lum > 0.45 ? '#111111' : '#FFFFFF';
}
