export { AutouserCreate, AutouserDetail } from "./autouser-detail";
export { AutouserList } from "./autouser-list";
