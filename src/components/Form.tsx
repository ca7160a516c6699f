// A form whose submit goes to its machine: the page never reloads, and the machine's checks speak
// instead of the browser's (noValidate).
import type { ComponentPropsWithRef } from 'react';

export function Form({
  onSubmit,
  ...rest
}: Omit<ComponentPropsWithRef<'form'>, 'onSubmit' | 'noValidate'> & { onSubmit: () => void }) {
  return (
    <form
      noValidate
      {...rest}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    />
  );
}
