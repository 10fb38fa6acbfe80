/** Built-in adapters: importing this module registers every one of them (one file each). */
export * from './base.js';
export * from './echo.js';
export * from './generic.js';
export * from './http.js';
export * from './mcp.js';
export * from './mock.js';
export * from './model.js';
export * from './module.js';
export * from './route.js';
export * from './subprocess.js';
