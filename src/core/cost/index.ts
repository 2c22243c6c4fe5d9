export {
  canonicalModel,
  findPrice,
  outcomeCost,
  type PartialPrice,
  priceTable,
  priceTurn,
} from "./price.js";
export { PRICES, PRICES_AS_OF } from "./prices.js";
