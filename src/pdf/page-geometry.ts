/** The page's measures and the shapes a section draws with: where text and boxes go, and how they look. Pure. */
import type { BaseDirection } from './bidi.ts';

export const PAGE = { width: 595.28, height: 841.89, margin: 40, footerTop: 785 } as const;
export const CONTENT = { left: PAGE.margin, right: PAGE.width - PAGE.margin, width: PAGE.width - 2 * PAGE.margin } as const;

/** Where text goes: the box [x, x + w], from top `y` down. */
export interface TextBox {
  x: number;
  w: number;
  y: number;
}

/** A rectangle: top-left (x, y), width and height. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A horizontal rule's colour, ends and width. */
export interface RuleStyle {
  color?: string;
  x1?: number;
  x2?: number;
  lineWidth?: number;
}

export interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: string;
  /** Base direction of the paragraph; amounts and codes are drawn 'ltr'. */
  dir?: BaseDirection;
  align?: 'right' | 'left' | 'center';
  link?: string | null;
  underline?: boolean;
}
