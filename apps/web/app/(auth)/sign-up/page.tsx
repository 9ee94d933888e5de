import type { Metadata } from "next";
import { AuthForm } from "@/features/auth";

export const metadata: Metadata = { title: "Sign up" };

export default function SignUpPage() {
  return <AuthForm mode="sign-up" />;
}
