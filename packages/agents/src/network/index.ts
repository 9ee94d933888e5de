export { isPublicAddress, parseIpv6 } from "./addresses";
export { publicUrlsOnly } from "./url-policy";
