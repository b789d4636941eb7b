import { CreateDateColumn, DeleteDateColumn, UpdateDateColumn } from 'typeorm';

/** created_at and updated_at, which TypeORM sets on insert and update. Entities inherit the columns. */
export abstract class Timestamps {
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** Timestamps and deleted_at: a soft-deleted row keeps its place, with deleted_at set. */
export abstract class SoftDeletable extends Timestamps {
  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz' })
  deletedAt: Date | null;
}
