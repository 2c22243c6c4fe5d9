import { pluginHostSuite } from "../opencode/plugin-suite.js";
import { KILO } from "./kilo-host.js";

pluginHostSuite(KILO);
