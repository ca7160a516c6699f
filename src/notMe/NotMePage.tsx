// /devices/not-me#<ticket>: "this wasn't me", the link of a new-device mail. The ticket is taken from
// the address's hash once (it never reaches a server log or a Referer) and the hash is dropped from
// the history entry; the server signs that device out (and this browser), and the person goes on to
// choose a new password. A link cut short, spent or expired leads there too: a new password is
// what is needed either way. The whole page is loaded afresh there, signed out.
import { useEffect, useRef, useState } from 'react';
import { pathOf } from '../../machines/routes.ts';
import { notMe } from '../api/flowCalls.ts';
import { takeHash } from '../shell/hash.ts';
import { Pending } from '../components/Pending.tsx';

const takeTicket = () => takeHash() || null;

export default function NotMePage() {
  const [ticket] = useState(takeTicket);
  const sent = useRef(false);
  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    const next = () => window.location.replace(pathOf('forgotPassword', 'email'));
    if (!ticket) {
      next();
      return;
    }
    notMe({ ticket }).then(next, next);
  }, [ticket]);
  return <Pending />;
}
