export { AuthForm } from "./auth-form";
