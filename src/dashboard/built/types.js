// Built from src/dashboard/client/types.ts by `npm run build:dashboard`: edit that file, not this one.
export {};
