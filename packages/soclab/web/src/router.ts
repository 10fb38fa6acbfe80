/** The console routes with the harness viewer's hash router (one implementation for both web apps). */
export { go, href as link, type Route, useRoute } from '../../../harness/web/src/router';
