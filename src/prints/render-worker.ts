// The entry of a render pool thread (piscina calls its default export with each task).
export { renderTask as default } from './render-task.ts';
