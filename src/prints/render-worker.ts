// The entry of a render pool thread (piscina calls its default export with each task).
import { renderBelowEventLoop } from './render-task.ts';

renderBelowEventLoop();

export { renderTask as default } from './render-task.ts';
