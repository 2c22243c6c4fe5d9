import { verifySuite } from "../opencode/verify-suite.js";
import { KILO } from "./kilo-host.js";

verifySuite(KILO);
