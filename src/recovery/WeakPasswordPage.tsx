// /weak-password: choosing a new password after a sign-in refused a weak one.
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { NewPassword } from '../components/NewPassword.tsx';

export default function WeakPasswordPage() {
  const weak = useFlowChild('weakPassword');
  return <FlowCard flow={weak}>{(flow) => <NewPassword weak={flow} />}</FlowCard>;
}
