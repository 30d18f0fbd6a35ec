import { hookedFile } from './hooks.ts';

hookedFile(import.meta.filename);
