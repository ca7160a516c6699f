// What a list or a screen shows when it could not load: the failure, announced, and the way to try
// again.
import { Alert } from './Alert.tsx';
import { Button } from './Button.tsx';

export function LoadFailed({
  message,
  retry,
  onRetry,
  retryClassName = 'mt-3',
  className,
}: {
  message: string;
  retry: string;
  onRetry: () => void;
  /** The button's spacing from the failure, as the list's container lays it out. */
  retryClassName?: string;
  /** The failure's spacing from what is above it (a screen's heading). */
  className?: string;
}) {
  return (
    <>
      <Alert tone="error" className={className}>
        {message}
      </Alert>
      <Button className={retryClassName} onClick={onRetry}>
        {retry}
      </Button>
    </>
  );
}
