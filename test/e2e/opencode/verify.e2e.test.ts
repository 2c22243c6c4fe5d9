import { OPENCODE } from "./opencode-host.js";
import { verifySuite } from "./verify-suite.js";

verifySuite(OPENCODE);
