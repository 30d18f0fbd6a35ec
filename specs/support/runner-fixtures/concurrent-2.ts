import { meetPeers } from './meet.ts';

meetPeers(import.meta.filename);
