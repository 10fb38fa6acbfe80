/** Reports: the versioned scorecard and everything rendered from it (HTML, text, one-page PDF). */
export * from './format.js';
export * from './pdf.js';
export * from './render.js';
export * from './scorecard.js';
export * from './text.js';
export * from './write.js';
