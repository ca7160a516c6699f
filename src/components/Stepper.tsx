// Where a step stands in a guided flow: its text ("Step 3 of 7") and a bar the text describes.
import type { ReactNode } from 'react';

export function Stepper({ step, steps, children }: { step: number; steps: number; children: ReactNode }) {
  return (
    <div className="mb-4">
      <p className="text-sm font-medium text-slate-700">{children}</p>
      <div className="mt-1 h-1.5 rounded bg-slate-200" aria-hidden="true">
        <div className="h-1.5 rounded bg-brand" style={{ width: `${(step / steps) * 100}%` }} />
      </div>
    </div>
  );
}
